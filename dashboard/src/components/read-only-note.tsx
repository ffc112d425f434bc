/** Says why a page's write controls are missing: the signed-in role, and the role they need. */
import { useContext } from 'preact/hooks';
import type { AdminRole } from '../../../lambdas/domain/admin-role';
import { RoleContext } from '../role';

export function ReadOnlyNote({ needed, what }: { needed: AdminRole; what: string }) {
  const held = useContext(RoleContext);
  return (
    <p class="muted read-only">
      You are signed in as {held ?? 'no role'}: to {what} you need the {needed} role. Ask a Tally admin to add you to its group.
    </p>
  );
}
