CREATE INDEX attempts_source_started_date_time_idx ON attempts (source, started_date_time) WHERE completed_date_time IS NULL;
