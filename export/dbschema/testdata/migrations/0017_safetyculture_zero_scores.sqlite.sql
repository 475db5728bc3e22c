UPDATE attempts SET score = NULL WHERE source = 'safetyculture' AND score = 0;

UPDATE course_progress SET score = NULL WHERE source = 'safetyculture' AND score = 0;
