-- description: orders belong to users
-- migrate:up
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  total_cents INTEGER NOT NULL CHECK (total_cents >= 0)
);
CREATE INDEX orders_user_id ON orders(user_id);

-- migrate:down
DROP TABLE orders;
