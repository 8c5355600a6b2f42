-- The payload of the position event a fill sends (eventType 1028), written in the fill's
-- transaction beside its order event, so that every node reads it from the same row as that
-- event. NULL for an event that is not a fill, and for the fills before this step.
ALTER TABLE order_events ADD COLUMN position_payload TEXT;
