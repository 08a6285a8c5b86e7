-- migrate:up
SET LOCAL lock_timeout = '2s';
SET LOCAL statement_timeout = '1min';
ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES users (id) NOT VALID;
