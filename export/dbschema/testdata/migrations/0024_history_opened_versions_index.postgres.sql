CREATE INDEX users_history_source_valid_from_idx ON users_history (source, valid_from);

CREATE INDEX user_custom_fields_history_source_valid_from_idx ON user_custom_fields_history (source, valid_from);

CREATE INDEX groups_history_source_valid_from_idx ON groups_history (source, valid_from);

CREATE INDEX group_members_history_source_valid_from_idx ON group_members_history (source, valid_from);

CREATE INDEX group_children_history_source_valid_from_idx ON group_children_history (source, valid_from);

CREATE INDEX collections_history_source_valid_from_idx ON collections_history (source, valid_from);

CREATE INDEX collection_courses_history_source_valid_from_idx ON collection_courses_history (source, valid_from);

CREATE INDEX courses_history_source_valid_from_idx ON courses_history (source, valid_from);

CREATE INDEX lessons_history_source_valid_from_idx ON lessons_history (source, valid_from);

CREATE INDEX survey_questions_history_source_valid_from_idx ON survey_questions_history (source, valid_from);

CREATE INDEX learning_paths_history_source_valid_from_idx ON learning_paths_history (source, valid_from);

CREATE INDEX sites_history_source_valid_from_idx ON sites_history (source, valid_from);

CREATE INDEX site_members_history_source_valid_from_idx ON site_members_history (source, valid_from);

CREATE INDEX rapid_refresh_answers_history_source_valid_from_idx ON rapid_refresh_answers_history (source, valid_from);

CREATE INDEX user_lesson_progress_history_source_valid_from_idx ON user_lesson_progress_history (source, valid_from);

CREATE INDEX user_slide_statistics_history_source_valid_from_idx ON user_slide_statistics_history (source, valid_from);

CREATE INDEX course_progress_history_source_valid_from_idx ON course_progress_history (source, valid_from);
