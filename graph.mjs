import { cruise } from 'dependency-cruiser';
const r = await cruise(['src'], { tsConfig: { fileName: 'tsconfig.json' }, tsPreCompilationDeps: true, validate:false });
const d = r.output;
const top=p=>{const m=p.match(/^src\/([^\/]+)/);return m?m[1]:p};
const edges=new Map();
for(const m of d.modules){if(!m.source.startsWith("src/"))continue;for(const dep of m.dependencies){if(!dep.resolved.startsWith("src/"))continue;const a=top(m.source),b=top(dep.resolved);if(a===b)continue;const k=a+" -> "+b;edges.set(k,(edges.get(k)||[]).concat(m.source.replace('src/','')+"=>"+dep.resolved.replace('src/','')))}}
for(const [k,v] of [...edges].sort()) console.log(k, v.length, v.length<8?v.join("; "):"");
