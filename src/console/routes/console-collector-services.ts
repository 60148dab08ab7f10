import type { Store } from '../../store/database.js';
import type { ProjectRepository } from '../../store/projects.js';
import type { ProjectDomainRepository } from '../../store/project-domains.js';
import type { DomainSettings } from '../../config/domain-settings.js';
import type { DomainVerifier } from '../domains/domain-verifier.js';
import type { ProxySettingsRepository } from '../../store/proxy-settings.js';
import type { ProjectComponentRepository } from '../../store/project-components.js';
import type { CollectedEventStore } from '../../store/collected-events.js';
import type { ComponentCatalogue } from '../components/component-catalogue.js';
import type { TargetPolicy } from '../../server/address-guard.js';

/** What the project, component, token and export routes need (built in wiring/start.ts). */
export interface ConsoleCollectorServices {
  store: Store;
  projects: ProjectRepository;
  projectDomains: ProjectDomainRepository;
  /** Development or production mode, and the settings of the ownership checks. */
  domains: DomainSettings;
  domainVerifier: DomainVerifier;
  proxySettings: ProxySettingsRepository;
  projectComponents: ProjectComponentRepository;
  events: CollectedEventStore;
  catalogue: ComponentCatalogue;
  webhookTargets: TargetPolicy;
  /** Called after a change that affects which project a host maps to or where its events go. */
  projectChanged(projectId: string): void;
}
