-- The card provider's publishable key (Stripe's `pk_…`): not a secret, it starts the
-- provider's card element in the customer's browser.
ALTER TABLE payment_credentials ADD COLUMN publishable_key TEXT;
