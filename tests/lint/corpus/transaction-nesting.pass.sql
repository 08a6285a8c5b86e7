-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
SAVEPOINT before_audit;
INSERT INTO audit (note) VALUES ('one');
RELEASE SAVEPOINT before_audit;
