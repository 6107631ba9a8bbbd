-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- When a refund was last asked of its provider: one request at a time asks (a resumed
-- refund waits until the last attempt is a minute old), and a bank refund asked once is
-- never asked again (its outcome comes by the provider's callback).
ALTER TABLE refunds ADD COLUMN attempted_at TEXT;
