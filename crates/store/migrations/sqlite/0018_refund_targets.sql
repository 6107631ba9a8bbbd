-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- What a cancellation owes from a collected card or bank payment, decided in the
-- cancellation's own transaction: the payment's refunded amount must reach
-- refund_target (minor units). The refund asked right after the cancellation, or the
-- owed-refunds job when another refund of the payment was under way or the provider did
-- not answer, returns the difference; a refund the provider refuses clears it and puts
-- what is still owed before staff (a REFUND_FAILED dead letter).
ALTER TABLE payments ADD COLUMN refund_target INTEGER;
CREATE INDEX payments_refund_owed ON payments (refund_target) WHERE refund_target IS NOT NULL;
