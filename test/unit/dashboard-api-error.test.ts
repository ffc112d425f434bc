/** The dashboard's ApiError: the admin API's messages, field by field, for display next to each input. */
import { expect, it } from 'vitest';
import { ApiError } from '../../dashboard/src/api';

it('gives each field its part of a "<field>: <message>; …" 400, array items counting for their field', () => {
  const err = new ApiError(
    400,
    'rate_limit_per_minute: rate_limit_per_minute must be at least 1; allowed_origins.1: each allowed origin must look like https://app.example.com',
  );
  // The field's API name becomes words a person reads.
  expect(err.forField('rate_limit_per_minute')).toBe('Rate limit per minute must be at least 1');
  expect(err.forField('allowed_origins')).toBe('each allowed origin must look like https://app.example.com');
  expect(err.forField('plan')).toBeUndefined();
  expect(err.apartFrom(['rate_limit_per_minute', 'allowed_origins'])).toBeUndefined();
  expect(err.apartFrom(['allowed_origins'])).toBe('Rate limit per minute must be at least 1');
  expect(new ApiError(400, 'goal_event: goal_event must not be empty').forField('goal_event')).toBe('Goal event must not be empty');
});

it('keeps a message that names no field whole, for the form', () => {
  const err = new ApiError(400, 'Invalid JSON body: Unexpected end of JSON input');
  expect(err.forField('name')).toBeUndefined();
  expect(err.apartFrom(['name'])).toBe('Invalid JSON body: Unexpected end of JSON input');
  expect(new ApiError(404, 'name: looks like a field but is a 404').forField('name')).toBeUndefined();
});

it('prefers the details of an ingestion-style error', () => {
  const err = new ApiError(400, 'Validation failed', [{ field: 'name', message: 'name is required' }]);
  expect(err.forField('name')).toBe('Name is required');
  expect(err.apartFrom(['name'])).toBeUndefined();
});
