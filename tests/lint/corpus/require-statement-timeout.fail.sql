-- migrate:up transaction:false
SET lock_timeout = '2s';
ALTER TABLE users ADD COLUMN IF NOT EXISTS bio text;
