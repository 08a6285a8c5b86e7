-- description: orders belong to users
-- migrate:up
CREATE TABLE orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  total_cents bigint NOT NULL CHECK (total_cents >= 0),
  placed_at timestamptz NOT NULL DEFAULT now()
);

-- migrate:down
DROP TABLE orders;
