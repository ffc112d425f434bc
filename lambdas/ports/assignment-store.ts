/** Sticky assignments: the variant each canonical user got in each experiment. */
export interface Assignment {
  experiment_id: string;
  user_id: string;
  variant: string;
}

export interface AssignmentStore {
  getMany(projectId: string, experimentIds: string[], userId: string): Promise<Map<string, string>>;
  assign(projectId: string, assignment: Assignment, atIso: string): Promise<string>;
}
