CREATE TABLE events (
  event_key TEXT NOT NULL,
  event_name TEXT,
  received_at TIMESTAMPTZ,
  event_time TIMESTAMPTZ,
  user_id TEXT,
  user_external_id TEXT,
  user_name TEXT,
  email TEXT,
  first_name TEXT,
  last_name TEXT,
  course_id TEXT,
  course_title TEXT,
  course_link TEXT,
  lesson_id TEXT,
  lesson_title TEXT,
  score DOUBLE PRECISION,
  quiz_id TEXT,
  quiz_title TEXT,
  quiz_session TEXT,
  quiz_link TEXT,
  due_date TIMESTAMPTZ,
  raw JSONB,
  PRIMARY KEY (event_key)
);

CREATE INDEX events_user_id_idx ON events (user_id);

CREATE INDEX events_course_id_idx ON events (course_id);

CREATE INDEX events_event_time_idx ON events (event_time);
