CREATE TABLE edapp_export_seen (
  source TEXT NOT NULL,
  table_name TEXT NOT NULL,
  walk_run BIGINT NOT NULL,
  export_run BIGINT NOT NULL,
  part BIGINT NOT NULL,
  keys TEXT NOT NULL,
  PRIMARY KEY (source, table_name, walk_run, export_run, part)
);
