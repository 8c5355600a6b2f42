-- A change feed of the orders, so that a node reads only what changed since its last read
-- instead of every open order (the claims of an account at each placement, the engine's book at
-- each tick). Each row carries the transaction that last wrote it; a reader keeps the xmin of a
-- snapshot taken before its read: every transaction below it had ended, so the rows it wrote
-- were visible to the read. Sequence numbers would not do: they are taken at write time, not
-- in commit order.
ALTER TABLE orders ADD COLUMN changed xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE FUNCTION orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed := pg_current_xact_id();
    RETURN NEW;
END
$$;

CREATE TRIGGER orders_changed BEFORE INSERT OR UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_changed();

CREATE INDEX orders_changed_by_account ON orders (account_id, changed);
CREATE INDEX orders_changed_all ON orders (changed);
