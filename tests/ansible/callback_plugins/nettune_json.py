# A JSON stdout callback for the tests, shaped like ansible.posix.json
# ({"plays": [{"tasks": [{"task": {"name"}, "hosts": {HOST: result}}]}],
# "stats": {HOST: {ok, changed, failures, ...}}}): ansible-core alone
# (Debian's ansible-core) ships no JSON stdout callback.
import json

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = '''
    name: nettune_json
    type: stdout
    short_description: results as one JSON document (nettune tests)
    description: Prints plays, tasks, per-host results and stats as JSON at the end.
'''


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'nettune_json'

    def __init__(self):
        super().__init__()
        self.plays = []

    def v2_playbook_on_play_start(self, play):
        self.plays.append({'play': {'name': play.get_name()}, 'tasks': []})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.plays[-1]['tasks'].append({'task': {'name': task.get_name()}, 'hosts': {}})

    def _record(self, result, **extra):
        r = dict(result._result)
        r.update(extra)
        self.plays[-1]['tasks'][-1]['hosts'][result._host.get_name()] = r

    def v2_runner_on_ok(self, result, **kwargs):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False, **kwargs):
        self._record(result, failed=True)

    def v2_runner_on_skipped(self, result, **kwargs):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result, **kwargs):
        self._record(result, unreachable=True)

    def v2_playbook_on_stats(self, stats):
        hosts = sorted(stats.processed.keys())
        out = {'plays': self.plays,
               'stats': {h: stats.summarize(h) for h in hosts}}
        self._display.display(json.dumps(out, indent=2, default=str, sort_keys=False))
