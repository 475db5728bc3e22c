CREATE TABLE learning_paths (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  title TEXT,
  description TEXT,
  is_published INTEGER,
  courses TEXT,
  raw TEXT,
  edapp_run INTEGER,
  PRIMARY KEY (id, source)
);

CREATE INDEX learning_paths_edapp_run_idx ON learning_paths (edapp_run);

CREATE TABLE rapid_refresh_answers (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  user_id TEXT,
  rapid_refresh_id TEXT,
  raw TEXT,
  edapp_run INTEGER,
  PRIMARY KEY (id, source)
);

CREATE INDEX rapid_refresh_answers_edapp_run_idx ON rapid_refresh_answers (edapp_run);

CREATE TABLE slide_statistics (
  source TEXT NOT NULL,
  slide_id TEXT NOT NULL,
  lesson_id TEXT,
  course_id TEXT,
  raw TEXT,
  edapp_run INTEGER,
  PRIMARY KEY (slide_id, source)
);

CREATE INDEX slide_statistics_edapp_run_idx ON slide_statistics (edapp_run);

CREATE TABLE user_slide_statistics (
  source TEXT NOT NULL,
  user_id TEXT NOT NULL,
  slide_id TEXT NOT NULL,
  lesson_id TEXT,
  course_id TEXT,
  raw TEXT,
  edapp_run INTEGER,
  PRIMARY KEY (user_id, slide_id, source)
);

CREATE INDEX user_slide_statistics_edapp_run_idx ON user_slide_statistics (edapp_run);
