CREATE TABLE edapp_export_seen (
  source TEXT NOT NULL,
  table_name TEXT NOT NULL,
  walk_run INTEGER NOT NULL,
  export_run INTEGER NOT NULL,
  part INTEGER NOT NULL,
  keys TEXT NOT NULL,
  PRIMARY KEY (source, table_name, walk_run, export_run, part)
);
