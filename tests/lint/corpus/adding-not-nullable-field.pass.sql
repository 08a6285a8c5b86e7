-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
ALTER TABLE users ADD CONSTRAINT users_email_not_null CHECK (email IS NOT NULL) NOT VALID;
