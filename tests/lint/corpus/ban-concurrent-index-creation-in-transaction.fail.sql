-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
CREATE INDEX CONCURRENTLY IF NOT EXISTS users_email ON users (email);
