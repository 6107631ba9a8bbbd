-- Participant types with their own price per person (a child's ticket) that a per-person
-- product offers: [{key, name, price}], price in minor units. A booking's choice of them
-- is kept in its price breakdown (participantTypes), which is priced again from here.
ALTER TABLE products ADD COLUMN participant_types JSONB NOT NULL DEFAULT '[]';
