-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Bulk sends (spec Part B 4.8 `POST /admin/messaging/bulk`) queue their messages in
-- batches, one transaction each: the batch that queues a booking's message also moves
-- the send's cursor past that booking, so a send picked up again after a crash (or by
-- another instance) goes on where it stopped and reaches each booking once.
ALTER TABLE message_bulks ADD COLUMN cursor_booking BLOB;
-- {reason: count} of the bookings that got no message (no_sms_opt_in, no_recipient, …)
ALTER TABLE message_bulks ADD COLUMN skip_reasons TEXT NOT NULL DEFAULT '{}';
ALTER TABLE message_bulks ADD COLUMN started_at TEXT;
-- when every recipient's message was written (sending goes on until each is delivered)
ALTER TABLE message_bulks ADD COLUMN prepared_at TEXT;
ALTER TABLE message_bulks ADD COLUMN finished_at TEXT;
CREATE INDEX message_bulks_due ON message_bulks (status, send_at);
