// `tsx --import ./lambdas/local/sql-text/register.mjs <script>`: lets tsx import .sql files as text (hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
