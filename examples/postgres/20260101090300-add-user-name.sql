-- description: users get a display name
-- migrate:up
ALTER TABLE users ADD COLUMN name text NOT NULL DEFAULT '';

-- migrate:down
ALTER TABLE users DROP COLUMN name;
