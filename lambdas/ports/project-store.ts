/** The projects table, as the handlers and the results job use it. */
export interface Project {
  id: string;
  name: string;
  created_at: string;
  /** IANA time zone name the project's insights count days in (domain/time-zone.ts); absent: UTC. */
  time_zone?: string;
}

export interface ProjectStore {
  create(project: Project): Promise<void>;
  get(id: string): Promise<Project | undefined>;
  list(): Promise<Project[]>;
  /** Sets a stored project's name and time zone; undefined when there is no such project. */
  update(id: string, changes: { name?: string; time_zone?: string }): Promise<Project | undefined>;
}
