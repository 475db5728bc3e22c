CREATE TABLE edapp_export_budget (
  id INTEGER NOT NULL,
  admissions TEXT,
  saved_at TEXT,
  PRIMARY KEY (id)
);
