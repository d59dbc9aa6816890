INSERT INTO schema_version VALUES(99999, 'future', 'later');
