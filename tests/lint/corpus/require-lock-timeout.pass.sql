-- migrate:up transaction:false
SET lock_timeout = '2s';
SET statement_timeout = '1min';
ALTER TABLE users ADD COLUMN IF NOT EXISTS bio text;
