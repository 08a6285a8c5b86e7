-- description: index orders by user without blocking writes
-- CREATE INDEX CONCURRENTLY cannot run inside a transaction: `transaction:false` on the up
-- marker runs both sections without one. Keep such a statement alone in its file. If the build
-- fails it leaves an INVALID index behind: drop it before `migronaut up` tries again.
-- migrate:up transaction:false
CREATE INDEX CONCURRENTLY orders_user_id ON orders (user_id);

-- migrate:down
DROP INDEX CONCURRENTLY IF EXISTS orders_user_id;
