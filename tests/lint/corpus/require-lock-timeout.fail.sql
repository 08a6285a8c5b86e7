-- migrate:up transaction:false
SET statement_timeout = '1min';
ALTER TABLE users ADD COLUMN IF NOT EXISTS bio text;
