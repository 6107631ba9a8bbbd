-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- What partial cancellations of a booking kept as their fees (minor units): a later
-- partial cancellation refunds beyond the new price and these, never the fees again.
ALTER TABLE bookings ADD COLUMN reduction_fees_kept INTEGER NOT NULL DEFAULT 0;
