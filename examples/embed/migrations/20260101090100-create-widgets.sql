-- description: widgets
-- migrate:up
CREATE TABLE widgets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO migration_log (name) VALUES ('20260101090100-create-widgets');

-- migrate:down
DROP TABLE widgets;
DELETE FROM migration_log WHERE name = '20260101090100-create-widgets';
