"""Personal data in Chinese queries: mainland mobile and landline numbers, resident id numbers
(by their check character), bank cards (Luhn), e-mail and IP addresses are scrubbed inside
Chinese text with no spaces around them; order numbers, prices, dates, versions, timestamps and
ISBNs are left exactly as typed."""

from __future__ import annotations

import pytest

from goldsmith.intake.pii import national_id_valid, scrub

FOUND = [
    # Mobile numbers, with and without +86, spaces or dashes, inside Chinese text.
    ("我的手机号是13812345678，谢谢", "我的手机号是<PHONE>，谢谢", "PHONE"),
    ("电话+86 138 1234 5678找我", "电话<PHONE>找我", "PHONE"),
    ("请拨+86-13812345678", "请拨<PHONE>", "PHONE"),
    ("手机0086 13812345678", "手机<PHONE>", "PHONE"),
    ("(+86)19912345678是我", "<PHONE>是我", "PHONE"),
    ("联系138-1234-5678", "联系<PHONE>", "PHONE"),
    ("联系 138 1234 5678 即可", "联系 <PHONE> 即可", "PHONE"),
    # Landlines with an area code.
    ("座机010-88886666", "座机<PHONE>", "PHONE"),
    ("深圳(0755)86001234", "深圳<PHONE>", "PHONE"),
    ("电话0755 8600 1234", "电话<PHONE>", "PHONE"),
    ("总机075586001234转人工", "总机<PHONE>转人工", "PHONE"),
    ("上海+86 21 6123 4567", "上海<PHONE>", "PHONE"),
    ("分机021-61234567转8001", "分机<PHONE>转8001", "PHONE"),
    # Resident id numbers that pass their check character.
    ("身份证号11010519491231002X", "身份证号<NATIONAL_ID>", "NATIONAL_ID"),
    ("身份证号码440306199003071232。", "身份证号码<NATIONAL_ID>。", "NATIONAL_ID"),
    ("证件 110105 19491231 002x 丢了", "证件 <NATIONAL_ID> 丢了", "NATIONAL_ID"),
    # Bank cards passing Luhn.
    ("卡号6222021234567890128扣款失败", "卡号<CARD>扣款失败", "CARD"),
    ("信用卡4111 1111 1111 1111被盗刷", "信用卡<CARD>被盗刷", "CARD"),
    # E-mail and IP as before, with Chinese right against them.
    ("请发到jane.doe@example.com谢谢", "请发到<EMAIL>谢谢", "EMAIL"),
    ("邮箱是ZHANG.san+work@mail.example.cn。", "邮箱是<EMAIL>。", "EMAIL"),
    ("我的邮箱jane[at]example.com收不到", "我的邮箱<EMAIL>收不到", "EMAIL"),
    ("服务器192.168.1.20连不上", "服务器<IP>连不上", "IP"),
    ("地址2001:db8::8a2e:370:7334无法访问", "地址<IP>无法访问", "IP"),
    ("账户DE89370400440532013000转账", "账户<IBAN>转账", "IBAN"),
]

LEFT_ALONE = [
    "订单号202401151234567897查不到",  # 18 digits passing Luhn, no card prefix
    "订单号110105194912310021",  # an id's shape with a wrong check character
    "订单号440306199013071234",  # month 13
    "订单20240115000123已发货",
    "快递单号SF1234567890123",
    "价格1,299元",
    "售价¥3999.00，优惠价￥2999",
    "2024年1月15日下单",
    "日期2024-01-15和20240115",
    "版本v2.3.1怎么升级",
    "Windows 10.0.19045.3693蓝屏",
    "时间戳1700000000转日期",
    "毫秒时间戳1700000000123",
    "ISBN 978-7-111-54493-7",
    "ISBN9787111544937的书",
    "库存还剩12345件",
    "第3期分12期",
    "call 1700000000 unix time",
]


@pytest.mark.parametrize(("text", "expected", "kind"), FOUND)
def test_personal_data_in_chinese_text_is_scrubbed(text, expected, kind):
    result = scrub(text)
    assert result.text == expected
    assert result.counts == {kind: 1}


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_ordinary_numbers_in_chinese_text_are_left_alone(text):
    result = scrub(text)
    assert result.text == text
    assert result.counts == {}


def test_the_id_check_character_is_iso_7064():
    assert national_id_valid("11010519491231002X")
    assert national_id_valid("11010519491231002x")
    assert not national_id_valid("110105194912310021")  # check character off by one
    assert not national_id_valid("990105194912310029")  # no such region
    assert not national_id_valid("110105194902301234")  # 30 February
    assert not national_id_valid("11010521000101002X")  # born in the future
