-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
ALTER TABLE users ADD COLUMN rank bigint;
