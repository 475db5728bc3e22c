ALTER TABLE edapp_export_kinds ADD COLUMN identities_changed BOOLEAN;
