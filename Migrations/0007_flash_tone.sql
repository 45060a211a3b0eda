-- How a session's flash message reads on the next page: 'done' (a change made) or 'warning' (a change made that the
-- admin should look at again, such as local Play Integrity keys that decrypt none of the recent failures). NULL, as in
-- rows written before this column, reads as 'done'. Portable: a plain ADD COLUMN.
ALTER TABLE sessions ADD COLUMN flash_tone TEXT;
