# ruff: noqa: E501 (Chinese text: each character counts two columns)
"""Writes the Chinese test collection of this directory (corpus.jsonl, queries.jsonl,
qrels.txt) and the raw query log the Chinese demo project imports (querylog.csv). Goldsmith's own text: see README.md. Deterministic; run it from anywhere:

    python annotation/demo_data/zh_collection/make_collection.py
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Twenty products of an imaginary company: ten devices, ten cloud and software services.
DEVICES = [
    ("watch-s3", "SmartWatch S3", "智能手表"),
    ("band-7", "运动手环 Band 7", "手环"),
    ("buds-pro", "AirBuds Pro 2", "蓝牙耳机"),
    ("phone-x5", "Nova X5 手机", "手机"),
    ("pad-11", "MatePad 11", "平板电脑"),
    ("router-ax3", "AX3000 路由器", "路由器"),
    ("robot-v8", "扫地机器人 V8", "扫地机器人"),
    ("kettle-k2", "智能电水壶 K2", "电水壶"),
    ("camera-c4", "家用摄像头 C4", "摄像头"),
    ("scale-s1", "体脂秤 S1", "体脂秤"),
]
SERVICES = [
    ("cloud-disk", "云盘 Pro", "云盘"),
    ("redis-cloud", "Redis 云数据库", "数据库"),
    ("sms-api", "短信 API", "短信服务"),
    ("ocr-api", "OCR 文字识别 API", "文字识别"),
    ("cdn", "CDN 加速", "CDN"),
    ("mail", "企业邮箱", "邮箱"),
    ("crm", "CRM 客户管理系统", "CRM"),
    ("vpn", "SSL VPN 网关", "VPN"),
    ("object-storage", "对象存储 OSS", "对象存储"),
    ("meeting", "视频会议 Meet", "视频会议"),
]

DEVICE_ASPECTS = {
    "warranty": [
        "{name} 的保修期为 {years} 年，自签收之日起计算。保修范围包括主板、屏幕和电池的非人为故障；"
        "进水、摔落等人为损坏不在免费保修范围内，可以付费维修。申请保修时请提供订单号和序列号（SN）。",
        "{name} 享受 {years} 年官方质保。在质保期内出现性能故障，可凭购买凭证到服务中心免费维修或更换；"
        "人为损坏、私自拆机的{kind}不享受质保。",
    ],
    "return": [
        "{name} 支持签收后 {days} 天内无理由退货，商品需保持完好，包装、配件和赠品齐全。"
        "在 App 的“我的订单”中提交退货申请，审核通过后快递员会上门取件。",
        "签收 {days} 天内，{name} 未激活、未使用可以申请无理由退货；已激活的{kind}只能在出现质量问题时退货。"
        "退货运费：质量问题由我们承担，非质量问题由买家承担。",
    ],
    "refund": [
        "{name} 退货入库检测通过后，退款会在 {refund} 个工作日内原路退回：支付宝、微信支付一般当天到账，"
        "银行卡需要 3 到 7 个工作日。使用优惠券的订单，优惠券在退款后返还到账户。",
        "退款说明（{name}）：仓库收到退回的{kind}并检测无误后发起退款，{refund} 个工作日内退回原支付账户；"
        "分期付款的订单会同时取消剩余分期。",
    ],
    "shipping": [
        "{name} 下单后 {ship} 小时内从上海或广州仓发货，默认使用顺丰快递。发货后可以在订单详情查看快递单号和物流进度；"
        "偏远地区（新疆、西藏等）配送时间较长，约 5 到 7 天送达。",
        "{name} 现货订单当天 16:00 前付款当天发出，其余 {ship} 小时内发出。暂不支持指定送货时间，"
        "也不支持货到付款。",
    ],
    "charging": [
        "{name} 使用 USB-C 接口充电，建议使用 {watt}W 及以上的充电器。充满电约需 {hours} 小时；"
        "充电时指示灯为橙色，充满后变为绿色。请勿使用非原装的快充线，以免损坏电池。",
        "为 {name} 充电：把充电线接到 {watt}W 电源适配器，{hours} 小时左右充满。若无法充电，"
        "请检查接口是否有灰尘，或换一根数据线再试。",
    ],
    "battery": [
        "{name} 的电池续航：正常使用约 {life} 天，开启全部功能约 {short} 天。电池容量低于 80% 时可以付费更换电池；"
        "省电模式可以延长一半左右的使用时间。",
        "{name} 满电可以用 {life} 天左右。续航明显变短时，请先把固件升级到最新版本，并关闭不需要的后台功能；"
        "如仍不足 {short} 天，可以联系客服检测电池。",
    ],
    "firmware": [
        "{name} 固件升级：在 App 的“设备”页面点击“检查更新”，下载完成后设备会自动重启。"
        "升级过程约 {mins} 分钟，期间请保持电量在 30% 以上，不要断开蓝牙或网络。当前版本 v{ver}。",
        "升级 {name} 的系统固件（当前 v{ver}）：保持设备联网、电量充足，在设置中选择“系统更新”。"
        "升级失败时设备会回到旧版本，数据不会丢失。",
    ],
    "pairing": [
        "{name} 首次使用需要配对：打开手机蓝牙和 App，点击“添加设备”，按提示靠近{kind}即可完成绑定。"
        "一台{kind}同一时间只能绑定一个账号，换手机前请先在旧手机上解除绑定。",
        "{name} 连接不上时：先关闭再打开手机蓝牙，把{kind}重启一次，再在 App 中重新添加。"
        "Android 手机需要授予 App 位置权限，否则搜索不到设备。",
    ],
    "reset": [
        "恢复出厂设置：长按 {name} 的电源键 {press} 秒，直到指示灯闪烁。恢复后所有数据和设置会被清除，"
        "需要重新配对绑定。转卖或送人前请先恢复出厂设置。",
        "{name} 死机或无响应时，可以先强制重启（按住电源键 10 秒）；仍无法使用再恢复出厂设置，"
        "在 App 中选择“设备 → 高级 → 恢复出厂”。",
    ],
    "waterproof": [
        "{name} 的防水等级为 {ip}，日常防溅、洗手没有问题，但不建议洗澡、游泳或桑拿时使用。"
        "进水属于人为损坏，不在保修范围内。",
        "关于防水：{name} 达到 {ip} 防护，可以防雨水和汗水；请不要浸泡在水中，也不要用热水冲洗。",
    ],
    "repair": [
        "{name} 屏幕碎裂或需要维修时，可以在 App 中预约寄修，维修周期约 {repair} 个工作日。"
        "保修期外更换屏幕的费用为 {price} 元，电池 {battery_price} 元。",
        "{name} 维修方式：寄修或到门店送修。寄修往返运费由我们承担，检测后会先报价，确认后再维修，"
        "一般 {repair} 个工作日寄回。",
    ],
    "accessories": [
        "{name} 的包装内含：{kind}主机、USB-C 充电线、说明书和保修卡。另购配件（表带、充电器、保护壳）"
        "可以在官方商城购买，配件保修 {acc} 个月。",
        "{name} 官方配件只在官方商城和授权店销售，第三方配件引起的故障不在保修范围内。配件享受 {acc} 个月质保。",
    ],
    "invoice": [
        "购买 {name} 可以开具电子发票：订单完成后在“我的订单 → 申请发票”中填写抬头和税号，"
        "发票 1 到 3 个工作日内发送到邮箱。需要增值税专用发票请联系客服。",
        "{name} 订单的发票为电子普通发票，与纸质发票具有同等效力；订单完成 {days} 天内可以修改发票抬头。",
    ],
    "trade-in": [
        "以旧换新：旧{kind}在 App 估价后寄回，检测通过后抵扣购买 {name} 的金额，最高抵扣 {tradein} 元。"
        "旧设备需能正常开机，并已解除账号绑定。",
        "{name} 参加以旧换新活动，任何品牌的旧{kind}都可以回收，估价结果 7 天内有效，抵扣款在新机订单中直接减免。",
    ],
    "price": [
        "{name} 官方售价 {price2} 元，官方商城支持 {installments} 期免息分期。价格保护：购买后 {days} 天内降价，"
        "可以申请退还差价。",
        "{name} 的价格为 {price2} 元起，不同颜色和存储版本价格不同；学生认证后可享 95 折优惠。",
    ],
}

SERVICE_ASPECTS = {
    "pricing": [
        "{name} 按量计费：每月前 {free} 免费，超出部分按 {unit_price} 计费，账单每小时结算一次。"
        "也可以购买包年包月套餐，比按量计费便宜约 {discount}%。",
        "{name} 的计费方式有两种：按量付费和包年包月。按量付费适合流量不稳定的业务，单价 {unit_price}；"
        "欠费后服务会在 24 小时后停止。",
    ],
    "trial": [
        "新用户可以免费试用 {name} {trial} 天，试用期内功能不受限制。试用结束后不会自动扣费，"
        "需要手动开通正式版本，试用期间的数据会保留 {keep} 天。",
        "{name} 提供 {trial} 天免费试用，每个企业账号只能试用一次。试用到期前 3 天会发送邮件和短信提醒。",
    ],
    "refund": [
        "{name} 包年包月套餐支持 {days} 天无理由全额退款；超过 {days} 天按未使用的月份比例退款，"
        "已使用的代金券不退。退款在 {refund} 个工作日内退回原支付账户。",
        "退订 {name}：在控制台的“费用中心 → 退订管理”中提交申请，按剩余时长退款，{refund} 个工作日内到账。"
        "按量付费的资源不支持退款。",
    ],
    "invoice": [
        "{name} 的发票在“费用中心 → 发票管理”中申请，按实际消费金额开具，支持增值税普通发票和专用发票。"
        "单张发票金额不低于 {min_invoice} 元。",
        "开具 {name} 的发票需要先完成企业实名认证。电子发票 1 个工作日内发送，纸质专用发票 {mail_days} 天内邮寄。",
    ],
    "login": [
        "忘记 {name} 的登录密码时，在登录页点击“忘记密码”，通过绑定的手机号或邮箱接收验证码后重置。"
        "密码长度至少 {pwd} 位，必须包含大小写字母和数字。",
        "{name} 连续输错密码 {lock} 次，账号会被锁定 30 分钟。被锁定后可以通过找回密码立即解锁。",
    ],
    "2fa": [
        "为 {name} 开启两步验证（2FA）：在“账号安全”中扫描二维码，绑定 Google Authenticator 或同类 App。"
        "开启后每次登录需要输入 6 位动态码。",
        "{name} 的双重认证支持短信验证码和 TOTP 动态口令。丢失手机时，可以用开启时保存的 {codes} 个备用码登录。",
    ],
    "rate-limit": [
        "{name} 的接口调用频率限制为每秒 {qps} 次（QPS），超过后返回 HTTP 429 Too Many Requests。"
        "需要更高的 QPS 请提交工单申请提额。",
        "限流说明：{name} 默认每个 AppKey 每分钟最多 {qpm} 次请求，超出后请求会被拒绝，建议在客户端使用指数退避重试。",
    ],
    "api-key": [
        "调用 {name} 需要 AccessKey：在控制台“访问密钥”页面创建 AccessKey ID 和 AccessKey Secret。"
        "Secret 只在创建时显示一次，请妥善保存，不要写在前端代码里。",
        "{name} 的 API 使用签名认证：请求头携带 Authorization，值为 HMAC-SHA256 签名。"
        "每个账号最多创建 {keys} 对 AccessKey，泄露后请立即禁用并重新创建。",
    ],
    "backup": [
        "{name} 每天凌晨 {hour} 点自动备份一次，备份保留 {retention} 天。也可以在控制台手动创建备份，"
        "手动备份不计入自动备份的数量。",
        "数据备份：{name} 支持自动备份和手动备份。从备份恢复数据时会覆盖当前数据，建议先恢复到新的实例中核对。",
    ],
    "export": [
        "导出 {name} 的数据：在控制台选择“数据管理 → 导出”，支持 CSV 和 JSON 格式，单次最多导出 {rows} 条记录。"
        "导出文件的下载链接 24 小时内有效。",
        "{name} 可以通过 API 批量导出数据，接口为 export_data，返回一个异步任务 ID，用 get_task_status 查询进度。",
    ],
    "delete-account": [
        "注销 {name} 账号前需要结清欠费、退订所有资源。注销后数据会在 {wipe} 天后彻底删除，无法恢复；"
        "同一手机号 30 天内不能再次注册。",
        "删除 {name} 实例：实例删除后进入回收站，保留 {bin} 天，期间可以恢复；回收站到期后数据永久删除。",
    ],
    "sla": [
        "{name} 的服务可用性承诺（SLA）为 {sla}%。如果月度可用性低于承诺，可以申请代金券赔偿，"
        "赔偿金额最高为当月费用的 {comp}%。",
        "可用性说明：{name} 采用多可用区部署，SLA 为 {sla}%。计划内维护会提前 {notice} 天通过站内信通知。",
    ],
    "region": [
        "{name} 目前在北京、上海、广州、成都和香港 5 个地域提供服务，不同地域之间内网不互通。"
        "创建后不能更换地域，如需迁移请使用数据迁移工具。",
        "选择 {name} 的地域时，建议选择离用户最近的地域以降低延迟；香港地域的价格比内地高约 {hk}%。",
    ],
    "upgrade": [
        "升级 {name} 套餐：在控制台点击“变更配置”，升级立即生效，按剩余时长补差价；"
        "降级在下一个计费周期生效。",
        "{name} 从基础版升级到专业版后可以使用全部高级功能，升级过程中服务不中断，费用按天折算。",
    ],
    "error-codes": [
        "{name} 常见错误码：401 表示 AccessKey 无效或签名错误；403 表示没有权限；429 表示请求过于频繁；"
        "500 是服务内部错误，可以稍后重试，持续出现请提交工单并附上 RequestId。",
        "调用 {name} 返回 InvalidParameter 时，请检查请求参数的格式和取值范围；返回 QuotaExceeded "
        "表示额度已用完，需要购买资源包。",
    ],
}


def fill(template: str, name: str, kind: str, rng: random.Random) -> str:
    values = {
        "name": name,
        "kind": kind,
        "years": rng.choice([1, 2, 3]),
        "days": rng.choice([7, 14, 15, 30]),
        "refund": rng.choice([3, 5, 7]),
        "ship": rng.choice([24, 48, 72]),
        "watt": rng.choice([5, 10, 18, 30, 65]),
        "hours": rng.choice([1, 1.5, 2, 3]),
        "life": rng.choice([5, 7, 10, 14, 21]),
        "short": rng.choice([2, 3, 4]),
        "mins": rng.choice([5, 10, 15]),
        "ver": f"{rng.randint(1, 4)}.{rng.randint(0, 9)}.{rng.randint(0, 30)}",
        "press": rng.choice([5, 8, 10, 15]),
        "ip": rng.choice(["IP67", "IP68", "5ATM", "IPX4"]),
        "repair": rng.choice([3, 5, 7, 10]),
        "price": rng.choice([199, 299, 399, 599, 899]),
        "battery_price": rng.choice([99, 129, 159, 199]),
        "acc": rng.choice([3, 6, 12]),
        "tradein": rng.choice([300, 500, 800, 1200]),
        "price2": rng.choice([299, 599, 999, 1499, 2999, 4999]),
        "installments": rng.choice([3, 6, 12, 24]),
        "free": rng.choice(["10 GB", "1 万次调用", "100 万次请求", "5 个用户"]),
        "unit_price": rng.choice(["0.12 元/GB", "0.045 元/条", "0.01 元/次", "1.5 元/小时"]),
        "discount": rng.choice([15, 20, 30]),
        "trial": rng.choice([7, 14, 30]),
        "keep": rng.choice([7, 15, 30]),
        "min_invoice": rng.choice([100, 200, 500]),
        "mail_days": rng.choice([3, 5, 7]),
        "pwd": rng.choice([8, 10, 12]),
        "lock": rng.choice([5, 6, 10]),
        "codes": rng.choice([8, 10]),
        "qps": rng.choice([10, 20, 50, 100, 500]),
        "qpm": rng.choice([600, 1200, 3000]),
        "keys": rng.choice([2, 5]),
        "hour": rng.choice([2, 3, 4]),
        "retention": rng.choice([7, 14, 30]),
        "rows": rng.choice(["10 万", "50 万", "100 万"]),
        "wipe": rng.choice([15, 30]),
        "bin": rng.choice([7, 15]),
        "sla": rng.choice(["99.9", "99.95", "99.99"]),
        "comp": rng.choice([30, 50, 100]),
        "notice": rng.choice([3, 7]),
        "hk": rng.choice([10, 20, 30]),
    }
    return template.format(**values)


def corpus() -> list[dict[str, str]]:
    """Each product is a document (its name the title); each of its aspects one chunk."""
    rng = random.Random(20261201)
    rows = []
    for products, aspects in ((DEVICES, DEVICE_ASPECTS), (SERVICES, SERVICE_ASPECTS)):
        for n, (slug, name, kind) in enumerate(products):
            for aspect, templates in aspects.items():
                template = templates[(n + len(aspect)) % len(templates)]
                text = fill(template, name, kind, rng)
                rows.append({"id": f"{slug}/{aspect}", "doc_id": slug, "title": name, "text": text})
    return rows


# Aspects close enough that the other one holds part of the answer (grade 1).
RELATED = {
    "return": ["refund"],
    "refund": ["return"],
    "charging": ["battery"],
    "battery": ["charging"],
    "warranty": ["repair"],
    "repair": ["warranty"],
    "pairing": ["reset"],
    "login": ["2fa"],
    "2fa": ["login"],
    "rate-limit": ["error-codes"],
    "error-codes": ["rate-limit"],
    "backup": ["export"],
    "export": ["backup"],
    "pricing": ["upgrade"],
    "upgrade": ["pricing"],
}

# Queries as users type them: colloquial, short, some in traditional characters, some with a
# typo or a word the answer does not use. (query id, text, product, aspect).
QUERIES = [
    ("q01", "SmartWatch S3 保修几年", "watch-s3", "warranty"),
    ("q02", "手表摔坏了还能免费修吗 S3", "watch-s3", "warranty"),
    ("q03", "S3手表怎么充电 要多久充满", "watch-s3", "charging"),
    ("q04", "手环 Band 7 电池能用几天", "band-7", "battery"),
    ("q05", "Band7 續航多久", "band-7", "battery"),
    ("q06", "band 7 戴着游泳可以吗", "band-7", "waterproof"),
    ("q07", "AirBuds Pro 2 耳机连不上手机蓝牙", "buds-pro", "pairing"),
    ("q08", "耳机 AirBuds 怎么恢复出厂", "buds-pro", "reset"),
    ("q09", "AirBuds Pro 2 退货怎么申请 快递上门吗", "buds-pro", "return"),
    ("q10", "Nova X5 手机退款多久到账", "phone-x5", "refund"),
    ("q11", "X5 手机坏了 在哪里维修 要几天", "phone-x5", "repair"),
    ("q12", "Nova X5 以旧換新最多抵多少", "phone-x5", "trade-in"),
    ("q13", "MatePad 11 固件怎么升级", "pad-11", "firmware"),
    ("q14", "MatePad 11 平板 發票怎麼開", "pad-11", "invoice"),
    ("q15", "MatePad11 多少钱 学生有优惠吗", "pad-11", "price"),
    ("q16", "AX3000 路由器什么时候发货", "router-ax3", "shipping"),
    ("q17", "路由器 AX3000 重置方法", "router-ax3", "reset"),
    ("q18", "扫地机器人 V8 保修范围", "robot-v8", "warranty"),
    ("q19", "V8 扫地机 配件在哪买", "robot-v8", "accessories"),
    ("q20", "扫地机器人V8 电池不耐用了", "robot-v8", "battery"),
    ("q21", "电水壶 K2 能退货吗 已经用过了", "kettle-k2", "return"),
    ("q22", "K2 水壶 防水吗 能不能用水冲", "kettle-k2", "waterproof"),
    ("q23", "摄像头 C4 绑定不了 App", "camera-c4", "pairing"),
    ("q24", "C4 摄像头固件更新失败", "camera-c4", "firmware"),
    ("q25", "家用摄像头 C4 送修要几天", "camera-c4", "repair"),
    ("q26", "体脂秤 S1 退款", "scale-s1", "refund"),
    ("q27", "体脂称 S1 价格", "scale-s1", "price"),  # 称 for 秤: a typo
    ("q28", "体脂秤S1 包装里有什么", "scale-s1", "accessories"),
    ("q29", "云盘 Pro 怎么收费", "cloud-disk", "pricing"),
    ("q30", "云盘Pro 可以试用吗", "cloud-disk", "trial"),
    ("q31", "云盘 Pro 误删的文件能恢复吗 有备份吗", "cloud-disk", "backup"),
    ("q32", "Redis 云数据库 从备份恢复会覆盖数据吗", "redis-cloud", "backup"),
    ("q33", "redis 云数据库 可用性 SLA 多少", "redis-cloud", "sla"),
    ("q34", "Redis 云数据库升级配置会停机吗", "redis-cloud", "upgrade"),
    ("q35", "短信 API 返回 429 怎么办", "sms-api", "rate-limit"),
    ("q36", "短信API QPS 上限", "sms-api", "rate-limit"),
    ("q37", "短信 API 请求签名怎么算", "sms-api", "api-key"),
    ("q38", "OCR 文字识别 API 报错 401", "ocr-api", "error-codes"),
    ("q39", "OCR API 按次收費 價格", "ocr-api", "pricing"),
    ("q40", "文字识别 OCR 接口限流", "ocr-api", "rate-limit"),
    ("q41", "CDN 加速 有哪些地域 节点", "cdn", "region"),
    ("q42", "CDN 加速 退订 退钱", "cdn", "refund"),
    ("q43", "CDN 加速 开发票", "cdn", "invoice"),
    ("q44", "企业邮箱 忘记密码 怎么找回", "mail", "login"),
    ("q45", "企业邮箱 两步验证 怎么开启", "mail", "2fa"),
    ("q46", "企业邮箱 删除实例后还能恢复吗", "mail", "delete-account"),
    ("q47", "CRM 客户管理系统 导出客户数据 Excel", "crm", "export"),
    ("q48", "CRM 系统免费试用几天", "crm", "trial"),
    ("q49", "CRM 怎么从基础版升到专业版", "crm", "upgrade"),
    ("q50", "SSL VPN 网关 忘了登录密码", "vpn", "login"),
    ("q51", "SSL VPN 双重认证", "vpn", "2fa"),
    ("q52", "VPN 网关 SLA 赔偿", "vpn", "sla"),
    ("q53", "对象存储 OSS 注销账号后数据还能找回吗", "object-storage", "delete-account"),
    ("q54", "OSS 对象存储 可以换地域吗", "object-storage", "region"),
    ("q55", "對象存儲 OSS 怎麼導出數據", "object-storage", "export"),
    ("q56", "视频会议 Meet 套餐价格 按量付费", "meeting", "pricing"),
    ("q57", "视频会议Meet 接口返回 403 是什么意思", "meeting", "error-codes"),
    ("q58", "Meet 视频会议 AccessKey Secret 忘了保存", "meeting", "api-key"),
    ("q59", "视频会议 Meet 可以退款吗", "meeting", "refund"),
    ("q60", "SmartWatch S3 換電池 多少錢", "watch-s3", "repair"),
]


# The raw log's other lines: the same questions as people also type them (traditional
# characters, full-width punctuation, spaces: one query after de-duplication), and lines with
# personal data that the import scrubs (a mobile number with and without +86, an e-mail, a
# resident ID number) beside an order number that it keeps.
VARIANTS = [
    ("q01", "SmartWatch S3 保修幾年"),
    ("q01", "smartwatch s3 保修几年？"),
    ("q05", "Band7 续航多久"),
    ("q07", "AirBuds Pro 2 耳機連不上手機藍牙"),
    ("q10", "Nova X5 手機退款多久到帳？"),
    ("q44", "企業郵箱 忘記密碼 怎麼找回"),
    ("q44", "企业邮箱 忘记密码，怎么找回？"),
    ("q55", "对象存储 OSS 怎么导出数据"),
    ("q60", "SmartWatch S3 换电池 多少钱"),
]
PERSONAL = [
    ("我的手机号 13812345678 收不到短信验证码", "云服务"),
    ("+86 139 1234 5678 这个号码能绑定企业邮箱吗", "云服务"),
    ("发票寄到 zhang.wei@example.com 了吗", "云服务"),
    ("身份证 110101199003071233 实名认证失败怎么办", "云服务"),
    ("订单号 202411051234 的手表什么时候发货", "设备"),
]


def querylog() -> list[tuple[str, str, str, str, int]]:
    """(query, timestamp, user, category, count) lines of a month of questions, seeded."""
    rng = random.Random(20261202)
    devices = {slug for slug, _name, _kind in DEVICES}
    category = {qid: "设备" if product in devices else "云服务" for qid, _t, product, _a in QUERIES}
    lines = [(text, category[qid]) for qid, text, _product, _aspect in QUERIES]
    lines += [(text, category[qid]) for qid, text in VARIANTS]
    lines += PERSONAL
    out = []
    for text, cat in lines:
        day, second = rng.randint(1, 30), rng.randint(0, 86_399)
        stamp = f"2024-11-{day:02d}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
        out.append(
            (text, stamp, f"user-{rng.randint(1, 120):03d}", cat, rng.choice([1, 1, 2, 3, 5, 8]))
        )
    return out


def main() -> None:
    rows = corpus()
    ids = {row["id"] for row in rows}
    with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (HERE / "queries.jsonl").open("w", encoding="utf-8") as out:
        for qid, text, _product, _aspect in QUERIES:
            out.write(json.dumps({"id": qid, "text": text}, ensure_ascii=False) + "\n")
    with (HERE / "qrels.txt").open("w", encoding="utf-8") as out:
        for qid, _text, product, aspect in QUERIES:
            graded = {f"{product}/{aspect}": 2}
            for other in RELATED.get(aspect, []):
                if f"{product}/{other}" in ids:  # services have no "return"
                    graded.setdefault(f"{product}/{other}", 1)
            for chunk_id, grade in graded.items():
                assert chunk_id in ids, chunk_id
                out.write(f"{qid} 0 {chunk_id} {grade}\n")
    with (HERE / "querylog.csv").open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["query", "timestamp", "user", "category", "count"])
        writer.writerows(querylog())


if __name__ == "__main__":
    main()
