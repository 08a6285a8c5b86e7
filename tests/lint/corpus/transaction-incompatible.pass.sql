-- migrate:up transaction:false
SET lock_timeout = '2s';
SET statement_timeout = '1min';
VACUUM users;
