-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
ALTER TABLE users ADD CONSTRAINT users_age_positive CHECK (age > 0) NOT VALID;
