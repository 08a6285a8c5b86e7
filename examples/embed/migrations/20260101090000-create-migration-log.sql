-- description: one row per migration that ran, so a double run shows
-- migrate:up
CREATE TABLE migration_log (name TEXT NOT NULL);
INSERT INTO migration_log (name) VALUES ('20260101090000-create-migration-log');

-- migrate:down
DROP TABLE migration_log;
