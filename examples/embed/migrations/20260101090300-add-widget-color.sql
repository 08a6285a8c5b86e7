-- description: widgets get a colour
-- migrate:up
ALTER TABLE widgets ADD COLUMN color TEXT NOT NULL DEFAULT 'grey';
INSERT INTO migration_log (name) VALUES ('20260101090300-add-widget-color');

-- migrate:down
ALTER TABLE widgets DROP COLUMN color;
DELETE FROM migration_log WHERE name = '20260101090300-add-widget-color';
