CREATE TABLE edapp_export_budget (
  id BIGINT NOT NULL,
  admissions JSONB,
  saved_at TIMESTAMPTZ,
  PRIMARY KEY (id)
);
