-- migrate:up transaction:false
SET lock_timeout = '2s';
SET statement_timeout = '1min';
CREATE INDEX CONCURRENTLY IF NOT EXISTS users_email ON users (email);
