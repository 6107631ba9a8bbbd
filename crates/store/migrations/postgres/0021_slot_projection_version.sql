-- A slot's projection version: raised by every change to its capacity picture (seats taken
-- or released, its capacity, opened or closed by the schedule). Availability shows it, and
-- a booking move answers the version its change produced.
ALTER TABLE slots ADD COLUMN projection_version BIGINT NOT NULL DEFAULT 0;
