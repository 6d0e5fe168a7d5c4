"""A job as GET /jobs/{job_id} reads it, of either kind: a list of positions (counted in the results table,
table.py) or a source in S3 (counted by chunks, s3/jobs.py; its results in the output bucket, s3/state.py).

Store is the table (table.Table) with the two reads that tell the kinds apart; everything that writes
uses the table's own methods.
"""

from functions.common.api.models import SearchLimits
from functions.common.jobs.models import DEFAULT_PAGE, JobState, job_status
from functions.common.jobs.review_report import summaries
from functions.common.jobs.s3 import state as s3_state
from functions.common.jobs.s3.jobs import job_dict
from functions.common.jobs.table import Table


class Store(Table):
    def job(self, job_id):
        """The job item as a dict (total, done, failed, status, ...), or None."""
        item = self.job_item(job_id)
        if not item:
            return None
        if item["source"]["S"] == "s3":  # counted by chunks
            return job_dict(job_id, item)
        total = int(item["total"]["N"])
        done = len(item.get("done_idx", {}).get("NS", []))
        failed = len(item.get("failed_idx", {}).get("NS", []))
        started = item.get("started_at", {}).get("S")
        status, puzzles = job_status(total, done, failed, started), None
        if status.startswith("done") and "puzzles_due" in item:  # a review is done once its puzzles are stored
            puzzles = self.puzzles(job_id)
            status = status if puzzles is not None else "running"
        return {"job_id": job_id, "status": status, "total": total, "done": done,
                "failed": failed, "created_at": item["created_at"]["S"], "started_at": started,
                "updated_at": item.get("updated_at", {}).get("S"),
                "options": SearchLimits.model_validate_json(item["options"]["S"]), "source": item["source"]["S"],
                "games": item.get("games", {}).get("S"), "puzzles": puzzles}

    def state(self, job_id, after=-1, limit=DEFAULT_PAGE):
        """JobState (the job and one page of results; a finished review's game summaries, with the puzzles
        stored when it was finished: none are searched here), or None for an unknown job."""
        job = self.job(job_id)
        if job is None:
            return None
        if job["source"] == "s3":  # its results are in the output bucket
            return s3_state.state(self, job_id)
        results, next_after = self.results(job_id, after, limit)
        games = None
        if job["games"] is not None and job["status"] in ("done", "done-with-failures"):
            games = summaries(job, self.all_results(job_id))
        return JobState(**{k: v for k, v in job.items() if k not in ("source", "games", "puzzles")},
                        review=job["games"] is not None, games=games, results=results, next_after=next_after)
