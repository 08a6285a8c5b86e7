-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
INSERT INTO audit (note) VALUES ('one');
COMMIT;
BEGIN;
INSERT INTO audit (note) VALUES ('two');
