// ESLint flat config (`npm run lint`): ESLint's and typescript-eslint's recommended rules, syntax
// only (no type information: tsc already type-checks, and a lint run stays at seconds).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'cdk.out/**', 'coverage/**', '.tally/**', '.bench/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // tsc resolves every name, with Node's and the DOM's globals; ESLint's copy of the check would not know them.
      'no-undef': 'off',
      // Matching control characters on purpose is how input is checked and escaped (SQL, headers).
      'no-control-regex': 'off',
      // `_` marks a value left unused on purpose, e.g. a property removed by destructuring.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read arbitrary JSON responses and poke at internals; `any` there is a reading aid, not a leak.
    files: ['test/**', 'sdk/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
