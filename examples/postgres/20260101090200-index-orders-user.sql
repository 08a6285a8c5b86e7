-- description: index orders by user without blocking writes
-- CREATE INDEX CONCURRENTLY cannot run inside a transaction: `transaction:false` on the up
-- marker runs both sections without one, each statement on its own. A build that fails or is
-- cut short leaves an INVALID index behind, which `IF NOT EXISTS` would take for done: the
-- drop first makes the file safe to run again.
-- migrate:up transaction:false
DROP INDEX CONCURRENTLY IF EXISTS orders_user_id;
CREATE INDEX CONCURRENTLY orders_user_id ON orders (user_id);

-- migrate:down
DROP INDEX CONCURRENTLY IF EXISTS orders_user_id;
