-- How a scenario rule shapes an order's fills (`then = { fill = ... }`), decided when the
-- order is placed and kept with it so that every node's engine fills it the same way: the plan
-- as JSON (`FillPlan::encode`), NULL for the normal path. `filled_at_sim` is the simulator's
-- time of the order's latest fill, which paces a plan's slices.
ALTER TABLE orders ADD COLUMN fill_plan TEXT;
ALTER TABLE orders ADD COLUMN filled_at_sim BIGINT;
