/** The projects table, as the handlers and the results job use it. */
export interface Project {
  id: string;
  name: string;
  created_at: string;
}

export interface ProjectStore {
  create(project: Project): Promise<void>;
  get(id: string): Promise<Project | undefined>;
  list(): Promise<Project[]>;
}
