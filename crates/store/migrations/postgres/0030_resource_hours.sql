-- A resource's own opening hours (Part B 4.12: resource-level schedules are independent
-- of product schedules): templates, overrides and blackouts may have the scope
-- `resource`. Outside its hours a resource gives nothing.
ALTER TABLE schedule_templates DROP CONSTRAINT schedule_templates_scope_type_check,
    ADD CONSTRAINT schedule_templates_scope_type_check
        CHECK (scope_type IN ('site', 'product', 'resource'));
ALTER TABLE schedule_overrides DROP CONSTRAINT schedule_overrides_scope_type_check,
    ADD CONSTRAINT schedule_overrides_scope_type_check
        CHECK (scope_type IN ('site', 'product', 'resource'));
ALTER TABLE schedule_blackouts DROP CONSTRAINT schedule_blackouts_scope_type_check,
    ADD CONSTRAINT schedule_blackouts_scope_type_check
        CHECK (scope_type IN ('site', 'product', 'resource'));
