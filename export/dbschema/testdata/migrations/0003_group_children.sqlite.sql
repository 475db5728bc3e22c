CREATE TABLE group_children (
  parent_id TEXT NOT NULL,
  child_id TEXT NOT NULL,
  edapp_run INTEGER,
  PRIMARY KEY (parent_id, child_id)
);

CREATE INDEX group_children_child_id_idx ON group_children (child_id);

CREATE INDEX group_children_edapp_run_idx ON group_children (edapp_run);
