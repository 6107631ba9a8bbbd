-- What partial cancellations of a booking kept as their fees (minor units): a later
-- partial cancellation refunds beyond the new price and these, never the fees again.
ALTER TABLE bookings ADD COLUMN reduction_fees_kept BIGINT NOT NULL DEFAULT 0;
