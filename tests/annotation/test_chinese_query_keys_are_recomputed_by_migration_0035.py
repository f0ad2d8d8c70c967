"""Migration annotation 0035 recomputes the de-duplication keys of a Chinese project's log
queries and queries with the fold in force: 查询订单, stored under the old round trip's 查找订单,
gets its own key back, so a new import of 查找订单 is another query and sampling finds the log
query and the project's query under one key. A key two rows would now share stays with the
first (no row merged, none refused by the unique constraint); another project's rows are left
as they are; a second run changes nothing."""

from __future__ import annotations

import importlib

from django.apps import apps

from annotation.models import LogQuery, Project, Query, QueryLog
from goldsmith.intake.normalize import normalize_query

migration = importlib.import_module("annotation.migrations.0035_chinese_query_keys_by_phrase")


def keys(model, **scope) -> dict[str, str]:
    return dict(model.objects.filter(**scope).values_list("text", "normalized"))


def test_the_keys_of_chinese_projects_are_recomputed_once(personas):
    project = personas.project
    Project.objects.filter(pk=project.pk).update(tokenizer="zh-bigrams")
    log = QueryLog.objects.create(project=project, filename="log.csv")
    rows = [  # (text, the key the round trip stored)
        ("查询订单", "查找订单"),
        ("軟體更新失敗", "软件更新失败"),
        ("接口报错", "界面报错"),
        ("新增地址", "添加地址"),
        ("退款多久到帳？", "退款多久到账?"),
    ]
    for rank, (text, old) in enumerate(rows):
        LogQuery.objects.create(log=log, text=text, normalized=old, rank=rank)
    # Another row whose text now keys like 新增地址's: the old keys kept them apart.
    LogQuery.objects.create(log=log, text="新增 地址", normalized="添加 地址", rank=9)
    Query.objects.create(project=project, text="查询订单", normalized="查找订单")
    english = Project.objects.create(name="English")
    other = QueryLog.objects.create(project=english, filename="log.csv")
    LogQuery.objects.create(log=other, text="查询订单", normalized="查找订单")

    migration.rekey_chinese_queries(apps, None)

    after = keys(LogQuery, log=log)
    assert after["查询订单"] == "查询订单" == normalize_query("查询订单", chinese=True)
    assert after["軟體更新失敗"] == "软件更新失败"
    assert after["接口报错"] == "接口报错"
    assert after["新增地址"] == "新增地址"
    assert after["退款多久到帳？"] == "退款多久到账?"
    assert after["新增 地址"] == "添加 地址"  # the first row took the key; this one keeps its own
    assert keys(Query, project=project) == {"查询订单": "查询订单"}
    assert keys(LogQuery, log=other) == {"查询订单": "查找订单"}

    migration.rekey_chinese_queries(apps, None)
    assert keys(LogQuery, log=log) == after


def test_a_key_another_row_still_holds_is_taken_after_it_moves(personas):
    project = personas.project
    Project.objects.filter(pk=project.pk).update(tokenizer="zh-words")
    log = QueryLog.objects.create(project=project, filename="log.csv")
    # Each row's new key is the other's old one: a one-step update would hit the constraint.
    LogQuery.objects.create(log=log, text="查询", normalized="查找", rank=0)
    LogQuery.objects.create(log=log, text="查找", normalized="查询", rank=1)

    migration.rekey_chinese_queries(apps, None)

    assert keys(LogQuery, log=log) == {"查询": "查询", "查找": "查找"}
